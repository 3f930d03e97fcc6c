# ruff: noqa: E501 (data lines: one class per line)
"""Domains for the generated parser corpus: classes with members and the relations between them.

Each domain is written in a compact notation read by ``make_parser_corpus.py``:

    Class: attr:Type, attr:Type | method(param:Type):Return, method()
    relation lines: A KIND B [mult-a mult-b] [label]

KIND is one of is-a, implements, owns (composition), has (aggregation), uses (dependency),
knows (association). Names are the model's, written the way course exercises name them.
"""

from __future__ import annotations

DOMAINS: dict[str, str] = {
    "library": """
Library: name:String, address:String | addBook(book:Book):void, findByTitle(title:String):List<Book>
Book: isbn:String, title:String, year:int | isAvailable():boolean
Member: memberId:int, name:String, email:String | borrow(book:Book):Loan, returnBook(loan:Loan):void
Loan: start:Date, due:Date, returned:boolean | isOverdue():boolean, fine():double
Author: name:String, born:Date |
Librarian: staffId:int | register(member:Member):void
Person: firstName:String, lastName:String | fullName():String
Library owns Book 1 *
Member knows Loan 1 0..* makes
Loan knows Book * 1
Book has Author * 1..*
Member is-a Person
Librarian is-a Person
Librarian uses Library
""",
    "webshop": """
Customer: id:long, email:String, password:String | login(email:String, password:String):boolean
Cart: created:Date | add(item:Product, qty:int):void, total():Money
CartItem: quantity:int | subtotal():Money
Product: sku:String, name:String, price:Money | discount(rate:double):Money
Order: number:String, placed:Date, status:OrderStatus | pay(method:PaymentMethod):Payment, cancel():void
Payment: amount:Money, paidAt:Date | refund():void
PaymentMethod: | authorize(amount:Money):boolean
CreditCard: number:String, expiry:String | authorize(amount:Money):boolean
PayPal: account:String | authorize(amount:Money):boolean
OrderStatus: NEW, PAID, SHIPPED, CANCELLED |
Customer owns Cart 1 1
Cart owns CartItem 1 *
CartItem knows Product * 1
Customer knows Order 1 * places
Order owns Payment 1 0..1
CreditCard implements PaymentMethod
PayPal implements PaymentMethod
Order uses PaymentMethod
Order knows OrderStatus
""",
    "bank": """
Bank: name:String, bic:String | openAccount(owner:Client):Account
Client: clientId:int, name:String | accounts():List<Account>
Account: iban:String, balance:double | deposit(amount:double):void, withdraw(amount:double):boolean
SavingsAccount: rate:double | addInterest():void
CheckingAccount: overdraft:double |
Transaction: amount:double, date:Date, kind:TxKind | apply(account:Account):void
TxKind: DEPOSIT, WITHDRAWAL, TRANSFER |
Statement: month:int, year:int | print():String
Bank owns Account 1 *
Bank knows Client 1 * serves
Client knows Account 1..* 1..* holds
SavingsAccount is-a Account
CheckingAccount is-a Account
Account owns Transaction 1 *
Transaction knows TxKind
Statement uses Account
""",
    "school": """
School: name:String | enroll(student:Student, course:Course):void
Student: studentNo:String, name:String, grade:int | average():double
Teacher: staffNo:String, subject:String | assess(student:Student):Mark
Course: code:String, title:String, credits:int |
Classroom: number:String, capacity:int |
Mark: value:double, date:Date |
Timetable: term:String | slotsFor(teacher:Teacher):List<Lesson>
Lesson: day:String, hour:int |
School owns Classroom 1 1..*
School has Teacher 1 *
Teacher knows Course * * teaches
Student knows Course * * attends
Student knows Mark 1 * receives
Timetable owns Lesson 1 *
Lesson knows Classroom * 1
Lesson knows Course * 1
""",
    "hospital": """
Hospital: name:String | admit(patient:Patient):Admission
Patient: patientId:String, name:String, birth:Date | history():List<Visit>
Doctor: licence:String, specialty:String | diagnose(p:Patient):Diagnosis
Nurse: ward:String |
Staff: name:String, salary:double | payslip():String
Admission: admitted:Date, discharged:Date | discharge():void
Ward: name:String, beds:int | freeBeds():int
Diagnosis: code:String, text:String |
Visit: date:Date, notes:String |
Hospital owns Ward 1 1..*
Hospital has Staff 1 *
Doctor is-a Staff
Nurse is-a Staff
Patient knows Admission 1 *
Admission knows Ward * 1
Doctor uses Diagnosis
Patient owns Visit 1 *
Visit knows Doctor * 1
""",
    "airline": """
Airline: code:String, name:String | schedule(flight:Flight):void
Flight: number:String, departure:DateTime, arrival:DateTime | delay(minutes:int):void
Airport: iata:String, city:String |
Aircraft: registration:String, seats:int | isAvailable(date:Date):boolean
Booking: reference:String, created:DateTime | cancel():void, checkIn():BoardingPass
Passenger: name:String, passport:String |
BoardingPass: gate:String, seat:String | print():void
CrewMember: employeeNo:int, role:String |
Airline owns Flight 1 *
Flight knows Airport * 1 departs from
Flight knows Aircraft * 1
Booking knows Flight * 1
Booking knows Passenger * 1..*
Booking uses BoardingPass
Flight has CrewMember * 2..*
""",
    "hotel": """
Hotel: name:String, stars:int | availableRooms(from:Date, to:Date):List<Room>
Room: number:int, floor:int, type:RoomType | price(night:Date):double
RoomType: SINGLE, DOUBLE, SUITE |
Guest: name:String, phone:String |
Reservation: arrival:Date, departure:Date | confirm():void, cancel():void
Invoice: total:double, paid:boolean | addCharge(c:Charge):void
Charge: description:String, amount:double |
Receptionist: name:String | checkIn(r:Reservation):void
Hotel owns Room 1 1..*
Room knows RoomType
Guest knows Reservation 1 *
Reservation knows Room * 1..*
Reservation owns Invoice 1 1
Invoice owns Charge 1 *
Receptionist uses Reservation
""",
    "parking": """
ParkingLot: name:String, capacity:int | park(v:Vehicle):Ticket, leave(t:Ticket):Payment
Level: number:int | freeSpots():int
ParkingSpot: id:String, size:SpotSize | fits(v:Vehicle):boolean
SpotSize: SMALL, MEDIUM, LARGE |
Vehicle: plate:String |
Car: doors:int |
Motorbike: |
Truck: axles:int |
Ticket: issued:DateTime, paid:boolean | duration():long
Payment: amount:double, method:String |
ParkingLot owns Level 1 1..*
Level owns ParkingSpot 1 *
ParkingSpot knows SpotSize
Car is-a Vehicle
Motorbike is-a Vehicle
Truck is-a Vehicle
Ticket knows Vehicle * 1
Ticket knows ParkingSpot * 1
ParkingLot uses Payment
""",
    "zoo": """
Zoo: name:String, city:String | feedAll():void
Enclosure: id:int, climate:String | add(a:Animal):void
Animal: name:String, age:int | eat(food:Food):void, sound():String
Mammal: furColor:String |
Bird: wingspan:double | fly():void
Reptile: coldBlooded:boolean |
Keeper: name:String | clean(e:Enclosure):void
Food: kind:String, kcal:int |
Zoo owns Enclosure 1 *
Enclosure has Animal 1 *
Mammal is-a Animal
Bird is-a Animal
Reptile is-a Animal
Keeper knows Enclosure * * looks after
Animal uses Food
""",
    "restaurant": """
Restaurant: name:String | seat(party:int):Table
Table: number:int, seats:int | isFree():boolean
Menu: season:String | items():List<Dish>
Dish: name:String, price:double, vegetarian:boolean |
OrderTicket: time:DateTime | add(d:Dish, qty:int):void, total():double
Waiter: name:String | take(t:Table):OrderTicket
Chef: name:String | cook(o:OrderTicket):void
Bill: amount:double, tip:double | split(n:int):List<Bill>
Restaurant owns Table 1 *
Restaurant owns Menu 1 1..*
Menu has Dish * *
OrderTicket knows Dish * 1..*
Waiter knows Table * * serves
Chef uses OrderTicket
OrderTicket owns Bill 1 0..1
""",
    "cinema": """
Cinema: name:String, address:String | program(week:int):List<Screening>
Hall: number:int, rows:int, seatsPerRow:int |
Movie: title:String, minutes:int, rating:String |
Screening: start:DateTime, language:String | freeSeats():int
Seat: row:int, number:int |
TicketSale: price:double, sold:DateTime | refund():void
Customer: name:String, email:String |
Cinema owns Hall 1 1..*
Hall owns Seat 1 *
Screening knows Movie * 1 shows
Screening knows Hall * 1
TicketSale knows Screening * 1
TicketSale knows Seat 1 1
Customer knows TicketSale 1 * buys
""",
    "social": """
User: handle:String, joined:Date | follow(other:User):void, post(text:String):Post
Profile: bio:String, avatarUrl:String |
Post: text:String, created:DateTime | like(u:User):void
Comment: text:String, created:DateTime |
Like: at:DateTime |
Feed: | refresh():List<Post>
Notification: message:String, read:boolean |
NotificationService: | notify(u:User, n:Notification):void
User owns Profile 1 1
User knows Post 1 * writes
Post owns Comment 1 *
Post owns Like 1 *
User knows User * * follows
Feed uses Post
NotificationService uses Notification
""",
    "chess": """
Game: started:DateTime, result:String | move(from:Square, to:Square):boolean, isCheckmate():boolean
Board: | squareAt(file:char, rank:int):Square
Square: file:char, rank:int |
Piece: white:boolean | canMove(from:Square, to:Square):boolean
King: castled:boolean |
Queen: |
Rook: |
Knight: |
Player: name:String, elo:int |
Move: notation:String | undo():void
Game owns Board 1 1
Board owns Square 1 64
Square knows Piece 1 0..1
King is-a Piece
Queen is-a Piece
Rook is-a Piece
Knight is-a Piece
Game knows Player * 2
Game owns Move 1 *
""",
    "music": """
StreamingService: name:String | search(q:String):List<Track>
Track: title:String, seconds:int | play():void
Album: title:String, year:int |
Artist: name:String, country:String |
Playlist: name:String, public:boolean | add(t:Track):void, shuffle():void
Listener: username:String, premium:boolean | subscribe(plan:Plan):void
Plan: name:String, monthly:double |
Player: volume:int | pause():void, skip():void
Album owns Track 1 1..*
Artist knows Album 1..* * records
Playlist has Track * *
Listener owns Playlist 1 *
Listener knows Plan * 1
Player uses Track
StreamingService has Album 1 *
""",
    "rideshare": """
RideApp: | request(rider:Rider, from:Location, to:Location):Ride
Rider: name:String, rating:double |
Driver: name:String, licence:String, rating:double | accept(r:Ride):void
Vehicle: plate:String, model:String, seats:int |
Ride: requested:DateTime, fare:double, status:RideStatus | start():void, finish():void
RideStatus: REQUESTED, ACCEPTED, ONGOING, DONE |
Location: lat:double, lon:double |
Rating: stars:int, comment:String |
Driver owns Vehicle 1 1..*
Ride knows Rider * 1
Ride knows Driver * 0..1
Ride knows Location * 2
Ride knows RideStatus
Ride owns Rating 1 0..2
RideApp uses Ride
""",
    "inventory": """
Warehouse: code:String, city:String | stockOf(item:Item):int
Item: sku:String, description:String, unitCost:double |
StockEntry: quantity:int, updated:DateTime | adjust(delta:int):void
Supplier: name:String, vat:String | quote(item:Item):double
PurchaseOrder: number:String, date:Date | addLine(item:Item, qty:int):void, send():void
OrderLine: quantity:int, price:double |
Shelf: aisle:String, level:int |
Warehouse owns Shelf 1 *
Shelf has StockEntry 1 *
StockEntry knows Item * 1
Supplier knows Item * * supplies
PurchaseOrder owns OrderLine 1 1..*
OrderLine knows Item * 1
PurchaseOrder knows Supplier * 1
""",
    "payroll": """
Company: name:String | runPayroll(month:int):List<Payslip>
Employee: id:int, name:String, hired:Date | pay():double
SalariedEmployee: salary:double |
HourlyEmployee: rate:double, hours:double |
Manager: bonus:double | approve(t:Timesheet):void
Department: name:String, budget:double |
Payslip: month:int, gross:double, net:double |
Timesheet: week:int, hours:double |
TaxRule: country:String, rate:double | apply(gross:double):double
Company owns Department 1 1..*
Department has Employee 1 *
SalariedEmployee is-a Employee
HourlyEmployee is-a Employee
Manager is-a SalariedEmployee
Employee knows Payslip 1 *
HourlyEmployee owns Timesheet 1 *
Payslip uses TaxRule
""",
    "university": """
University: name:String | admit(a:Applicant):Student
Faculty: name:String |
Professor: title:String, office:String | supervise(s:Student):void
Student: matriculation:String, semester:int | register(m:Module):void
Module: code:String, ects:int | passed(s:Student):boolean
Exam: date:Date, room:String |
Thesis: title:String, submitted:Date |
Applicant: name:String, gpa:double |
University owns Faculty 1 1..*
Faculty has Professor 1 *
Faculty owns Module 1 *
Student knows Module * * takes
Module owns Exam 1 1..2
Student owns Thesis 1 0..1
Professor knows Thesis 1 * supervises
University uses Applicant
""",
    "smarthome": """
Home: address:String | devices():List<Device>
Room: name:String, area:double |
Device: id:String, online:boolean | turnOn():void, turnOff():void
Thermostat: target:double | setTarget(t:double):void
Lamp: brightness:int | dim(level:int):void
Sensor: unit:String | read():double
Hub: firmware:String | pair(d:Device):boolean
Rule: condition:String, action:String | evaluate():boolean
Home owns Room 1 1..*
Room has Device 1 *
Thermostat is-a Device
Lamp is-a Device
Sensor is-a Device
Hub knows Device 1 * controls
Hub owns Rule 1 *
Rule uses Sensor
""",
    "elevator": """
Building: floors:int | call(floor:int, up:boolean):void
Elevator: currentFloor:int, capacity:int | moveTo(floor:int):void, openDoor():void
Door: open:boolean |
Controller: | dispatch(r:Request):Elevator
Request: floor:int, up:boolean, time:long |
Panel: | press(floor:int):void
Motor: rpm:int | start():void, stop():void
Building owns Elevator 1 1..*
Elevator owns Door 1 1
Elevator owns Motor 1 1
Elevator owns Panel 1 1
Controller knows Elevator 1 *
Controller uses Request
Panel uses Request
""",
    "vending": """
VendingMachine: location:String, credit:double | insert(c:Coin):void, select(code:String):Product
Slot: code:String, count:int | release():Product
Product: name:String, price:double |
Coin: value:double |
State: | insert(m:VendingMachine, c:Coin):void
IdleState: |
HasCreditState: |
SoldOutState: |
VendingMachine owns Slot 1 *
Slot has Product 1 0..*
VendingMachine knows State * 1 current
IdleState implements State
HasCreditState implements State
SoldOutState implements State
VendingMachine uses Coin
""",
    "carrental": """
RentalAgency: name:String | available(from:Date, to:Date):List<Car>
Branch: city:String, phone:String |
Car: plate:String, model:String, dailyRate:double | isFree(d:Date):boolean
Customer: name:String, licence:String |
Rental: from:Date, to:Date, km:int | close(returned:Date):Invoice
Invoice: total:double |
Insurance: kind:String, daily:double |
RentalAgency owns Branch 1 1..*
Branch has Car 1 *
Rental knows Car * 1
Rental knows Customer * 1
Rental has Insurance * 0..1
Rental uses Invoice
""",
    "issues": """
Project: key:String, name:String | createIssue(title:String):Issue
Issue: id:int, title:String, priority:Priority | assign(u:Developer):void, close():void
Bug: severity:int, stepsToReproduce:String |
Feature: storyPoints:int |
Priority: LOW, MEDIUM, HIGH, CRITICAL |
Developer: login:String, email:String |
Comment: text:String, at:DateTime |
Sprint: number:int, start:Date, end:Date |
Project owns Issue 1 *
Bug is-a Issue
Feature is-a Issue
Issue knows Priority
Issue knows Developer * 0..1 assignee
Issue owns Comment 1 *
Sprint has Issue * *
""",
    "blog": """
Blog: title:String, url:String | publish(p:Article):void
Article: title:String, body:String, published:DateTime | wordCount():int
Author: name:String, bio:String |
Tag: label:String |
Reader: email:String |
Subscription: since:Date, active:boolean |
Category: name:String |
Blog owns Article 1 *
Article knows Author * 1 written by
Article has Tag * *
Article knows Category * 1
Reader owns Subscription 1 *
Subscription knows Blog * 1
""",
    "bibliothek": """
Bibliothek: name:String, straße:String | ausleihen(buch:Buch, leser:Leser):Ausleihe
Buch: titel:String, jahr:int, größe:String |
Leser: ausweisNr:int, name:String |
Ausleihe: von:Datum, bis:Datum | verlängern():void
Mitarbeiter: personalNr:int |
Gebühr: betrag:double |
Bibliothek owns Buch 1 *
Leser knows Ausleihe 1 *
Ausleihe knows Buch * 1
Ausleihe owns Gebühr 1 0..*
Mitarbeiter uses Bibliothek
""",
    "tienda": """
Tienda: nombre:String | vender(p:Producto, cantidad:int):Factura
Producto: código:String, descripción:String, precio:double |
Cliente: nombre:String, teléfono:String |
Factura: número:int, fecha:Date | total():double
LíneaFactura: cantidad:int, importe:double |
Empleado: nombre:String, puesto:String |
Tienda owns Producto 1 *
Cliente knows Factura 1 *
Factura owns LíneaFactura 1 1..*
LíneaFactura knows Producto * 1
Empleado uses Factura
""",
    "toshokan": """
図書館: 名前:String | 貸出(本:本, 会員:会員):貸出記録
本: 題名:String, 著者:String |
会員: 会員番号:int, 氏名:String |
貸出記録: 貸出日:Date, 返却日:Date |
司書: 職員番号:int |
図書館 owns 本 1 *
会員 knows 貸出記録 1 *
貸出記録 knows 本 * 1
司書 uses 図書館
""",
}
